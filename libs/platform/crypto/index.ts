// The master key is loaded in the kernel (the gateway process derives its SSE id key from it too).
export { MASTER_KEY_BYTES, loadMasterKey, masterKeyGeneratedMessage, parseMasterKey } from '@lore/platform/kernel';
export { seal, unseal } from './aead';
export * from './keyring';
export * from './sealed-fields';
export { openBytes, sealBytes, sealedBytesKeyId } from './sealed-bytes';
export * from './stream-erasure.reactor';
