import { defineConformanceSuite } from './define.js';

defineConformanceSuite('getPet');
