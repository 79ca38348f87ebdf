/**
 * The ADDRESS_HASH_KEY the test servers run with (a test value, never a real secret): servers started in
 * process and in child processes with DATABASE_URL hash client addresses under it.
 */
export const TEST_ADDRESS_HASH_KEY = 'test-address-hash-key-0123456789abcdef0123456789abcdef'
