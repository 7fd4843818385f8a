import { defineConformanceSuite } from './define.js';

defineConformanceSuite('createPet');
