/** Where a client sends: AWS by default, or (local stack only) an emulator at `endpoint` that takes any credentials. */
export interface ClientTarget {
  endpoint?: string | undefined;
  region?: string;
}

/** The SDK client settings for a target, shared by every client factory. */
export function clientOptions(target: ClientTarget) {
  if (target.endpoint) {
    return { endpoint: target.endpoint, region: target.region ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  }
  return target.region ? { region: target.region } : {};
}
