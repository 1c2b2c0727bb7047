export * from './master-key';
export * from './aead';
export * from './keyring';
export * from './sealed-fields';
export * from './stream-erasure.reactor';
