/** Builds the requests of the three operations from the contract (method and path come from the document). */
import { operation, type OperationId } from '../spec/contract.js';
import type { AuthSpec, OutgoingRequest } from '../http/client.js';

export function pathOf(op: OperationId, params: Record<string, string> = {}, query = ''): string {
  return operation(op).path.replace(/\{(\w+)\}/g, (_m, name: string) => params[name] ?? `{${name}}`) + query;
}

export function listPets(auth: AuthSpec, query = ''): OutgoingRequest {
  return { operation: 'listPets', method: operation('listPets').method, path: pathOf('listPets', {}, query), auth };
}

export function createPet(auth: AuthSpec, body: string | null): OutgoingRequest {
  // The media type is declared even with no body, so that a missing body is answered as such, not as a 415.
  return {
    operation: 'createPet',
    method: operation('createPet').method,
    path: pathOf('createPet'),
    auth,
    body,
    headers: { 'content-type': 'application/json' },
  };
}

/** `segment` is the petId path segment, already URL-encoded. */
export function getPet(auth: AuthSpec, segment: string): OutgoingRequest {
  return { operation: 'getPet', method: operation('getPet').method, path: pathOf('getPet', { petId: segment }), auth };
}
