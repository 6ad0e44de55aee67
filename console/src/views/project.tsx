/** To be built (issue 28): projects/{projectId}: the project and its environments. */
export function Project() {
  return (
    <section>
      <h1>Project</h1>
      <p class="muted">Not built yet.</p>
    </section>
  );
}
