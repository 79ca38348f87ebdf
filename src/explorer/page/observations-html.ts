/** The Observations tab and its panel, added before the Plan tab and its panel. */

export const OBSERVATIONS_TAB_HTML = `<button type="button" id="tab-observations" role="tab" aria-controls="panel-observations">Observations</button>`

/** The columns a survey CSV needs, in the order the docs give them. */
export const SURVEY_CSV_COLUMNS =
  'plot_id, latitude, longitude, species_code, planting_method, planted_on, surveyed_on, planted, alive'

export const OBSERVATIONS_PANEL_HTML = `
<div class="spinner" aria-hidden="true"></div>
<h2 class="observations-title">Your surveys against the model</h2>
<p id="observations-scope" class="observations-scope">Every survey plot of the key’s account, all species and methods: the species, method, horizon and climate above do not apply here.</p>
<p id="observations-caveat" class="observations-caveat">Each plot’s prediction is the model’s survival at its age, at its nearest data site, made when the plot was stored. The sites are synthetic and the model is calibrated to published planting figures, not trained on surveys (see the model card): explore with it, do not judge real plantings by it.</p>
<form id="observations-upload-form" class="observations-upload" novalidate>
  <fieldset>
    <legend>Add plots from a survey CSV (optional)</legend>
    <div class="field observations-file"><label for="observations-file">Survey CSV</label><input id="observations-file" name="observations-file" type="file" accept=".csv,text/csv"></div>
    <label class="observations-check"><input id="observations-skip-invalid" name="observations-skip-invalid" type="checkbox"> Store the valid rows, report the rest</label>
    <p class="observations-hint">A header row naming <code>${SURVEY_CSV_COLUMNS}</code> (<code>plot_area_m2</code> and <code>protocol</code> optional), one plot a row. The file is sent as it is to <code>POST /v1/surveys/uploads</code>; unless the box is ticked, one refused row stores nothing.</p>
    <div class="observations-actions">
      <button type="submit" id="observations-upload">Upload</button>
      <button type="button" id="observations-reload" class="secondary">Use the stored plots</button>
    </div>
  </fieldset>
  <p id="observations-status" class="observations-status" role="status" aria-live="polite"></p>
  <div id="observations-error" class="observations-error" role="alert" hidden></div>
</form>
<div id="observations-upload-result" class="observations-upload-result" hidden>
  <p id="observations-upload-summary" class="observations-upload-summary"></p>
  <table id="observations-refused" class="differential observations-refused" hidden>
    <caption>Refused rows (row 1 is the first after the header)</caption>
    <thead><tr><th scope="col">Row</th><th scope="col">Plot</th><th scope="col">Field</th><th scope="col">Reason</th></tr></thead>
    <tbody id="observations-refused-body"></tbody>
  </table>
  <p id="observations-refused-more" class="observations-status" hidden></p>
</div>
<div id="observations-result" class="observations-result">
  <p id="observations-summary" class="observations-summary"></p>
  <p id="observations-drawn" class="observations-status"></p>
  <div id="observations-empty" class="observations-empty" hidden></div>
  <div id="observations-report" class="observations-report">
    <h2>Reliability: observed against predicted</h2>
    <div id="observations-chart" class="chart chart-reliability"></div>
    <details class="observations-bins">
      <summary>The bins as a table</summary>
      <table class="differential observations-table">
        <caption>Plots by predicted survival: the trees’ mean prediction and their observed survival</caption>
        <thead><tr><th scope="col">Predicted</th><th scope="col">Plots</th><th scope="col">Trees</th><th scope="col">Mean predicted</th><th scope="col">Observed</th></tr></thead>
        <tbody id="observations-bins-body"></tbody>
      </table>
    </details>
    <h2>By species and method</h2>
    <table id="observations-groups" class="differential observations-table observations-groups">
      <caption id="observations-groups-caption">Observed survival with its interval beside the mean prediction</caption>
      <thead><tr><th scope="col">Species, method</th><th scope="col">Plots, trees</th><th scope="col">Observed</th><th scope="col">Predicted</th><th scope="col">Observed − predicted, pp</th></tr></thead>
      <tbody id="observations-groups-body"></tbody>
    </table>
    <h2>Scores over every plot (weighted by trees)</h2>
    <dl id="observations-scores" class="attributes observations-scores"></dl>
    <h2 id="observations-notes-heading">Notes</h2>
    <ul id="observations-notes" class="observations-notes"></ul>
    <p class="actions"><span id="observations-model" class="model"></span></p>
  </div>
</div>`
