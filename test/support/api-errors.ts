import { expect } from 'vitest'
import { ApiError } from '../../src/domain/errors.ts'

/** The ApiError a promise rejects with (fails the test if it resolves or rejects with anything else). */
export async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ApiError)
  return error as ApiError
}

/** The field an invalid_request (400) refusal names (fails the test on any other outcome). */
export async function refusedField(promise: Promise<unknown>): Promise<string> {
  const error = await apiErrorOf(promise)
  expect(error.code).toBe('invalid_request')
  expect(error.status).toBe(400)
  return (error.details as { field: string }).field
}
