/** To be built (issue 28): one webhook endpoint. */
export function Webhook() {
  return (
    <section>
      <h1>Webhook</h1>
      <p class="muted">Not built yet.</p>
    </section>
  );
}
