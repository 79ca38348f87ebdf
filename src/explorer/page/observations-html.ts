/** The Observations tab and its panel, added before the Plan tab and its panel. */

export const OBSERVATIONS_TAB_HTML = `<button type="button" id="tab-observations" role="tab" aria-controls="panel-observations">Observations</button>`

/** The columns a survey CSV needs, in the order the docs give them. */
export const SURVEY_CSV_COLUMNS =
  'plot_id, latitude, longitude, species_code, planting_method, planted_on, surveyed_on, planted, alive'

/**
 * The Calibrate action: a version fitted on the plots the filter keeps, its progress while it runs,
 * then what it fitted: the offsets of the species × method with plots, the uncertainty terms, how it
 * fares out of sample, its notes and (prominent) its warnings; and using it or making it the default.
 */
const CALIBRATION_HTML = `<section id="calibration" class="calibration" aria-labelledby="calibration-heading">
  <h2 id="calibration-heading">Calibrate the model on these plots</h2>
  <p class="observations-hint">Fits a calibrated version of the current base version on <strong id="calibration-filter">every plot of the account</strong> that it predicted: a logit offset for each species × method, pooled toward its method’s mean, and the uncertainty terms the plots can tell; then checks it against the base version on plots it did not see. Nothing answers with it until you use it.</p>
  <div class="observations-actions">
    <button type="button" id="calibration-start">Calibrate</button>
  </div>
  <div id="calibration-running" class="calibration-running" hidden>
    <label for="calibration-progress">Fitting</label>
    <progress id="calibration-progress" max="1" value="0"></progress>
  </div>
  <p id="calibration-status" class="observations-status" role="status" aria-live="polite"></p>
  <div id="calibration-error" class="observations-error" role="alert" hidden>
    <p id="calibration-error-text"></p>
    <button type="button" id="calibration-follow" class="secondary" hidden>Follow the running calibration</button>
  </div>
  <div id="calibration-result" class="calibration-result" hidden>
    <h3 id="calibration-version" class="calibration-version"></h3>
    <div id="calibration-warnings" class="calibration-warnings" hidden>
      <p class="calibration-warnings-title"><span aria-hidden="true">⚠ </span>Warnings: reasons to prefer the base version</p>
      <ul id="calibration-warnings-list"></ul>
    </div>
    <p id="calibration-data" class="calibration-data"></p>
    <table id="calibration-offsets" class="differential observations-table calibration-offsets">
      <caption id="calibration-offsets-caption">Offsets of the species × method with plots</caption>
      <thead><tr><th scope="col">Species, method</th><th scope="col">Plots, trees</th><th scope="col">Offset, interval</th><th scope="col">Shrinkage</th></tr></thead>
      <tbody id="calibration-offsets-body"></tbody>
    </table>
    <p id="calibration-pooled" class="observations-status"></p>
    <table id="calibration-terms" class="differential observations-table calibration-terms">
      <caption id="calibration-terms-caption">Uncertainty terms</caption>
      <thead><tr><th scope="col">Term</th><th scope="col">Value, interval</th><th scope="col">Status</th></tr></thead>
      <tbody id="calibration-terms-body"></tbody>
    </table>
    <h3 class="calibration-subheading">Out of sample: cross-validation by plot</h3>
    <p id="calibration-cv" class="calibration-cv"></p>
    <table id="calibration-cv-table" class="differential observations-table calibration-cv-table">
      <caption>Scores on held-out plots (per tree)</caption>
      <thead><tr><th scope="col">Score</th><th scope="col">Base</th><th scope="col">Calibrated</th></tr></thead>
      <tbody id="calibration-cv-body"></tbody>
    </table>
    <h3 id="calibration-notes-heading" class="calibration-subheading">Notes</h3>
    <ul id="calibration-notes" class="observations-notes"></ul>
    <div class="observations-actions calibration-actions">
      <button type="button" id="calibration-use">Use this version</button>
      <button type="button" id="calibration-default" class="secondary">Make default</button>
    </div>
    <p id="calibration-done" class="observations-status" role="status" aria-live="polite"></p>
  </div>
</section>`

export const OBSERVATIONS_PANEL_HTML = `
<div class="spinner" aria-hidden="true"></div>
<h2 class="observations-title">Your surveys against the model</h2>
<p id="observations-scope" class="observations-scope">The key’s account’s survey plots that the filter below keeps: the species, method, horizon and climate above do not apply here; the model version does.</p>
<p id="observations-caveat" class="observations-caveat">Each plot’s prediction is the model’s survival at its age, at its nearest data site, made when the plot was stored. The sites are synthetic and the model is calibrated to published planting figures, not trained on surveys (see the model card): explore with it, do not judge real plantings by it.</p>
<form id="observations-filter-form" class="observations-filter" novalidate>
  <fieldset>
    <legend>Which plots</legend>
    <div class="field"><label for="observations-filter-species">Surveyed species</label><select id="observations-filter-species" name="observations-filter-species"></select></div>
    <div class="field"><label for="observations-filter-method">Surveyed method</label><select id="observations-filter-method" name="observations-filter-method"></select></div>
  </fieldset>
</form>
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
    <ul id="observations-legend" class="reliability-legend" aria-label="Series of the reliability diagram" hidden></ul>
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
    <table id="observations-scores-compare" class="differential observations-table observations-scores-compare" hidden>
      <caption>The base version and the calibration on the same plots</caption>
      <thead><tr><th scope="col">Score</th><th scope="col">Base<small id="observations-scores-base"></small></th><th scope="col">Calibrated<small id="observations-scores-calibrated"></small></th></tr></thead>
      <tbody id="observations-scores-compare-body"></tbody>
    </table>
    <h2 id="observations-notes-heading">Notes</h2>
    <ul id="observations-notes" class="observations-notes"></ul>
    <p class="actions"><span id="observations-model" class="model"></span></p>
  </div>
</div>
${CALIBRATION_HTML}`
