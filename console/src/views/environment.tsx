/** To be built (issue 28): an environment's secrets. */
export function Environment() {
  return (
    <section>
      <h1>Environment</h1>
      <p class="muted">Not built yet.</p>
    </section>
  );
}
