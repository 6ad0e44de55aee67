/** A rotation function that succeeds, printing what a careless parser could take for a failed result. */
export async function handler(event: { Step: string }): Promise<void> {
  console.log(JSON.stringify({ ok: false, errorType: 'Printed', errorMessage: 'not a result' }));
  console.error(`step ${event.Step}: done`);
  process.stdout.write('no newline at the end');
}
