export * from './extracted-records';
export * from './mapping-suggestion';
export * from './synthetic-records';
export * from './image-content';
