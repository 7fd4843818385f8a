/**
 * Clauses a check speaks for beyond the one it is filed under (e.g. body-schema cites the schema it validated). The
 * clause-coverage test reads this together with each check's own clause and the `coverage` notes in clauses.yaml.
 */
export const alsoCovers: Readonly<Record<string, readonly string[]>> = {
  'body-schema': ['2-pets-array', '2-error-schema', '2-petstatus-enum'],
  'auth-rejected': ['1-auth-required'],
  'get-200': ['4.3-deprecated'],
  'list-limit-respected': ['8-page-size'],
  'list-invalid-query': ['gap-4-unknown-status-filter'],
  'error-body-429': ['gap-7-rule-3-429-body'],
  'retry-after-valid': ['gap-8-retry-after-format'],
  'rl-ban-observed': ['5-ban', 'gap-8-ban-duration'],
};
