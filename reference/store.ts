/**
 * In-memory pets. Ids and categoryIds are bigint so every int64 survives exactly; pets are kept in creation order,
 * once in full and once per status, so a filtered page is a slice (O(limit)), never a scan.
 */
export type PetStatus = 'available' | 'pending' | 'sold';

export interface Pet {
  readonly id: bigint;
  readonly name: string;
  readonly categoryId: bigint;
  /** A string, not PetStatus: the invalid-status fault stores values outside the enum. */
  readonly status: string;
  /** Epoch ms of creation (the not-listed fault hides young pets). */
  readonly createdAt: number;
}

export class PetStore {
  private readonly byId = new Map<bigint, Pet>();
  private readonly all: Pet[] = [];
  private readonly byStatus = new Map<string, Pet[]>();
  private next: bigint;

  constructor(firstId: bigint = 1n) {
    this.next = firstId;
  }

  get size(): number {
    return this.all.length;
  }

  /** The id the next create would get (the duplicate-id fault reads it early). */
  peekNextId(): bigint {
    return this.next;
  }

  has(id: bigint): boolean {
    return this.byId.has(id);
  }

  /** Stores a pet under the next free id, or under `id` when given (faults only: client ids, racy ids). */
  add(fields: { name: string; categoryId: bigint; status: string }, now: number, id?: bigint): Pet {
    let assigned = id;
    if (assigned === undefined) {
      while (this.byId.has(this.next)) this.next++;
      assigned = this.next++;
    } else if (assigned >= this.next) {
      this.next = assigned + 1n;
    }
    const { name, categoryId, status } = fields;
    const pet: Pet = Object.freeze({ id: assigned, name, categoryId, status, createdAt: now });
    this.byId.set(assigned, pet);
    this.all.push(pet);
    let list = this.byStatus.get(pet.status);
    if (!list) {
      list = [];
      this.byStatus.set(pet.status, list);
    }
    list.push(pet);
    return pet;
  }

  /** Replaces what getPet returns for an id (faults only: a list that changes what it lists). */
  overwrite(pet: Pet): void {
    this.byId.set(pet.id, Object.freeze({ ...pet }));
  }

  get(id: bigint): Pet | undefined {
    return this.byId.get(id);
  }

  /** Oldest first, filtered by status when given, at most `limit` (Infinity for all). */
  list(status: string | undefined, limit: number): Pet[] {
    const source = status === undefined ? this.all : (this.byStatus.get(status) ?? []);
    return source.slice(0, limit);
  }
}
