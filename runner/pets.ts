/** Reading pets out of exchanges: ids and fields as exact digits, never through a JS number. */
import type { Exchange } from '../http/exchange.js';
import { digits } from '../http/lossless.js';

export interface PetView {
  readonly id: string | null;
  readonly name: unknown;
  readonly categoryId: string | null;
  readonly status: unknown;
}

export function petOf(value: unknown): PetView | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  return { id: digits(o.id), name: o.name, categoryId: digits(o.categoryId), status: o.status };
}

/** The pet a 200 or 201 returned (a create or a get), or null. */
export function returnedPet(ex: Exchange): PetView | null {
  const s = ex.response?.status;
  return s === 200 || s === 201 ? petOf(ex.response?.json) : null;
}

/** The pets of a list body (an array), or [] when it is not one. */
export function listedPets(ex: Exchange): PetView[] {
  const body = ex.response?.status === 200 ? ex.response.json : undefined;
  return Array.isArray(body) ? body.map(petOf).filter((p): p is PetView => p !== null) : [];
}

/** An id usable in a URL path: exact integer digits only. */
export function usableId(id: string | null): string | null {
  return id !== null && /^-?\d+$/.test(id) ? id : null;
}
