/** Request generators derived from the contract; each factory takes an optional Contract (default: the loaded one). */
export {
  AUTH_VARIANTS,
  NEAR_MISSES,
  authHeader,
  authScheme,
  authCase,
  authVariants,
  invalidAuth,
  prototypeKeyCase,
  validAuth,
  type AuthVariant,
} from './auth.js';
export { CASE_FAMILIES, caseFamilies, caseRef, type CaseFamily, type CaseRef } from './case.js';
export { enumMember, notEnumMember } from './enum.js';
export { beyondDigits, beyondEdges, integerDigits, integerEdges, nearIntegerText, nonIntegerText } from './integer.js';
export { INT64_EDGES, beyondInt64Digits, int64Digits } from './int64.js';
export {
  invalidBodyCase,
  invalidKind,
  invalidNewPet,
  invalidNewPetKinds,
  markerName,
  type InvalidBody,
} from './invalid-new-pet.js';
export {
  invalidListQuery,
  invalidListQueryKinds,
  listQueryCase,
  QUERY_PARAM_FAMILIES,
  validListQuery,
  type ListQuery,
} from './list-query.js';
export {
  COVERAGE_NAMES,
  LONG_NAME_BYTES,
  NAME_PREFIX_MAX,
  PLAIN_NAME_MAX,
  edgeName,
  isEdgeName,
  isPlainPrefix,
  ordinaryName,
  petName,
  plainName,
  prefixedName,
} from './names.js';
export { newPetBody, newPetShape, validNewPet, type GeneratedPet } from './new-pet.js';
export {
  absentPetId,
  absentPetIdEdges,
  existingPetId,
  invalidPetId,
  invalidPetIdEdges,
  PET_ID_FAMILIES,
  petIdCase,
  type PetIdCase,
} from './pet-id.js';
export * from './schema.js';
