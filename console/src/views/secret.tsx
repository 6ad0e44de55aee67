/** To be built (issue 28): a secret's history. */
export function Secret() {
  return (
    <section>
      <h1>Secret</h1>
      <p class="muted">Not built yet.</p>
    </section>
  );
}
