/** A rotation function whose step fails. */
export async function handler(): Promise<void> {
  console.log('about to fail');
  throw new TypeError('the database refused the new password');
}
