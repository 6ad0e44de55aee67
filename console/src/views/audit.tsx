/** To be built (issue 28): the audit log. */
export function Audit() {
  return (
    <section>
      <h1>Audit</h1>
      <p class="muted">Not built yet.</p>
    </section>
  );
}
