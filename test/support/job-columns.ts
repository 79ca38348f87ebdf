import { RESULT_COLUMNS } from '../../src/job-files/job-output.ts'

/** The columns of NDJSON jobs as the API contract names them, written out: what the tests hold the code to. */

const ECHOED_FIRST = ['id', 'latitude', 'longitude', 'species_code', 'planting_method', 'horizons']
const CLIMATE = ['period', 'scenario']

/** The columns of an NDJSON job, in order. */
export const NDJSON_JOB_COLUMNS = [...ECHOED_FIRST, ...CLIMATE]

/** The CSV header of an NDJSON job's results: its columns, with the results before period and scenario. */
export const NDJSON_RESULTS_HEADER = [...ECHOED_FIRST, ...RESULT_COLUMNS, ...CLIMATE]
