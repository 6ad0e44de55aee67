/** A rotation function that ends its process without answering. */
export async function handler(): Promise<void> {
  process.exit(3);
}
