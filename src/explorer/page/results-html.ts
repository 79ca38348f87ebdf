import { GEOJSON_FILE_TYPES } from './dom.ts'

/** The results layer's box, above the tabs: a job's id or a results file, then what is on the map. */
export const RESULTS_BOX_HTML = `
<summary><span class="results-heading">Results layer</span> <span id="results-badge" class="results-badge">a GeoJSON job’s results on the map</span></summary>
<div class="spinner" aria-hidden="true"></div>
<form id="results-job-form" class="results-job-form" novalidate>
  <div class="field"><label for="results-job-id">Job id</label><input id="results-job-id" name="results-job-id" spellcheck="false" autocomplete="off" autocapitalize="off" placeholder="job_…"></div>
  <button type="submit" id="results-show-job">Show job</button>
</form>
<div class="field results-file">
  <label for="results-file">Or a results file (GeoJSON; or drop it on the map)</label>
  <input id="results-file" name="results-file" type="file" accept="${GEOJSON_FILE_TYPES}">
</div>
<p id="results-status" class="results-status" role="status" aria-live="polite"></p>
<div id="results-error" class="results-error" role="alert" hidden></div>
<div id="results-shown" class="results-shown" hidden>
  <div class="results-row">
    <div class="results-horizon"><label for="results-horizon">Colour points by survival at</label><select id="results-horizon" name="results-horizon"></select></div>
    <div class="results-buttons">
      <button type="button" id="results-fit" class="secondary">Zoom to layer</button>
      <button type="button" id="results-remove" class="secondary">Remove layer</button>
    </div>
  </div>
  <p id="results-summary" class="results-summary" aria-live="polite"></p>
  <div id="results-failed" class="results-failed" hidden>
    <table class="differential results-failed-table">
      <caption>Failed features, by error code (listed, not drawn)</caption>
      <thead><tr><th scope="col">Error code</th><th scope="col">Features</th></tr></thead>
      <tbody id="results-failed-body"></tbody>
    </table>
    <ul id="results-failed-list" class="results-failed-list"></ul>
  </div>
  <form id="results-find-form" class="results-find" novalidate>
    <div class="field"><label for="results-find">Find a feature (id or feature index)</label><input id="results-find" name="results-find" spellcheck="false" autocomplete="off"></div>
    <button type="submit" class="secondary">Show feature</button>
  </form>
  <p id="results-find-status" class="results-status" role="status" aria-live="polite"></p>
</div>`
