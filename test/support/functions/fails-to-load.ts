/** A rotation function whose module throws as it loads. */
if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set');

export async function handler(): Promise<void> {}
