export * from './mapped-rows';
