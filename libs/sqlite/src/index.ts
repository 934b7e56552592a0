export * from './open-sqlite';
