/** To be built (issue 28): access keys. */
export function AccessKeys() {
  return (
    <section>
      <h1>AccessKeys</h1>
      <p class="muted">Not built yet.</p>
    </section>
  );
}
