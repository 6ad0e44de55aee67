/** To be built (issue 28): compare two environments of a project. */
export function Compare() {
  return (
    <section>
      <h1>Compare</h1>
      <p class="muted">Not built yet.</p>
    </section>
  );
}
