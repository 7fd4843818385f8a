import { defineConformanceSuite } from './define.js';

defineConformanceSuite('listPets');
