export * from './master-key';
export * from './aead';
export * from './keyring';
