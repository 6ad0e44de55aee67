/** To be built (issue 28): search across the workspace. */
export function Search() {
  return (
    <section>
      <h1>Search</h1>
      <p class="muted">Not built yet.</p>
    </section>
  );
}
