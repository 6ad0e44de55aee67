/** To be built (issue 28): webhook endpoints. */
export function Webhooks() {
  return (
    <section>
      <h1>Webhooks</h1>
      <p class="muted">Not built yet.</p>
    </section>
  );
}
