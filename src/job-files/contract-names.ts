import { type ApiError, invalidField } from '../domain/errors.ts'

/** camelCase names (speciesMix, treesPerAcre) as the API contract spells them: species_mix, trees_per_acre. */
function snakeCase(text: string): string {
  return text.replace(/\b[a-z]+(?:[A-Z][a-z\d]*)+\b/g, (name) =>
    name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
  )
}

/**
 * An error's message with the fields it names as a stand's properties spell them: the plan service
 * names its request's fields as the domain does (`speciesMix[1].speciesCode`), the job file as the
 * API contract does (`species_mix[1].species_code`).
 */
export function messageInContractNames(error: ApiError): string {
  const { field, reason } = (error.details ?? {}) as { field?: unknown; reason?: unknown }
  if (error.code !== 'invalid_request' || typeof field !== 'string' || typeof reason !== 'string')
    return error.message
  return invalidField(snakeCase(field), snakeCase(reason)).message
}
