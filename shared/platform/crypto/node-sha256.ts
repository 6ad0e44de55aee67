import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/**
 * SHA-256 and HMAC-SHA256 as the AWS SDK's signer asks for them (its `sha256` option), from node:crypto: for the
 * SigV4 verifier (shared/aws/sigv4.ts) and the local STS stand-in. The SDK package has its own copy
 * (sdk/src/node-sha256.ts): it is published on its own and imports nothing from the service, nor the service from it.
 */
export class NodeSha256 {
  private readonly hash: Hash | Hmac;

  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }

  /** Adds data to the hash (a string as UTF-8). */
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }

  /** The digest, as the signer awaits it. */
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

function bytes(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}
