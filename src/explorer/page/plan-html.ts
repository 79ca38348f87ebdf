import type { CostDefaultOption } from '../page-data.ts'
import { GEOJSON_FILE_TYPES } from './dom.ts'
import { PLAN_OPTIONS_HTML } from './options-view.ts'
import { CONFIDENCE_MAX_PERCENT, CONFIDENCE_MIN_PERCENT } from './plan-bounds.ts'
import { PLAN_COST_HTML } from './plan-cost-view.ts'
import { planCostsHtml } from './plan-costs.ts'
import { PLAN_VIEWS_HTML } from './plan-options.ts'
import { PLAN_TREATMENTS_HTML } from './plan-treatments.ts'

/** The Plan tab and its panel, added after the other tabs and panels. */

export const PLAN_TAB_HTML = `<button type="button" id="tab-plan" role="tab" aria-controls="panel-plan">Plan</button>`

/** The panel, its cost inputs showing the defaults the server wrote into the page. */
export const planPanelHtml = (costDefaults: readonly CostDefaultOption[]): string => `
<div class="spinner" aria-hidden="true"></div>
<h2 class="plan-title">How many trees to plant?</h2>
<form id="plan-form" class="plan-form" novalidate>
  <fieldset class="plan-target">
    <legend>Plan for</legend>
    <div class="plan-choices">
      <label><input type="radio" name="plan-target" id="plan-target-point" value="point" checked> The chosen point</label>
      <label><input type="radio" name="plan-target" id="plan-target-stand" value="stand"> A stand</label>
    </div>
    <p id="plan-where" class="plan-where"></p>
    <div id="plan-stand-tools" class="stand-tools" hidden>
      <div class="stand-buttons">
        <button type="button" id="plan-draw" class="secondary">Draw on the map</button>
        <button type="button" id="plan-clear-stand" class="secondary">Clear stand</button>
      </div>
      <div id="plan-drawing" class="drawing" hidden>
        <p id="plan-drawing-status" class="drawing-status" role="status" aria-live="polite"></p>
        <div class="stand-buttons">
          <button type="button" id="plan-finish">Close stand</button>
          <button type="button" id="plan-undo" class="secondary">Undo vertex</button>
          <button type="button" id="plan-add-centre" class="secondary">Add map centre</button>
          <button type="button" id="plan-cancel" class="secondary">Cancel</button>
        </div>
      </div>
      <div class="field plan-file">
        <label for="plan-file">Stand from a GeoJSON file (or drop it on the map)</label>
        <input id="plan-file" name="plan-file" type="file" accept="${GEOJSON_FILE_TYPES}">
      </div>
    </div>
  </fieldset>
  <div class="plan-grid">
    <div class="field"><label for="plan-density">Planted density</label><input id="plan-density" name="plan-density" type="number" inputmode="decimal" min="1" step="any" required></div>
    <div class="field"><label for="plan-density-unit">Density unit</label><select id="plan-density-unit" name="plan-density-unit"><option value="acre">trees per acre</option><option value="hectare">trees per hectare</option></select></div>
    <div class="field"><label for="plan-confidence">Confidence (%)</label><input id="plan-confidence" name="plan-confidence" type="number" inputmode="numeric" min="${CONFIDENCE_MIN_PERCENT}" max="${CONFIDENCE_MAX_PERCENT}" step="1" required></div>
    <p id="plan-uses" class="plan-uses"></p>
  </div>
  <fieldset id="plan-mix" class="plan-mix">
    <legend>Species mix</legend>
    <div class="mix-head" aria-hidden="true"><span>Species</span><span>Share (0–1)</span></div>
    <div id="plan-mix-rows" class="mix-rows"></div>
    <div class="mix-footer">
      <button type="button" id="plan-add-species" class="secondary">Add species</button>
      <button type="button" id="plan-even" class="secondary">Equal shares</button>
      <span id="plan-mix-sum" class="mix-sum" aria-live="polite"></span>
    </div>
  </fieldset>
  <details id="plan-standard" class="plan-standard">
    <summary>Standard (optional)</summary>
    <div class="plan-grid">
      <div class="field"><label for="plan-rule-set">Rule set</label><select id="plan-rule-set" name="plan-rule-set"></select></div>
      <div class="field"><label for="plan-site-class">Site class (Oregon)</label><select id="plan-site-class" name="plan-site-class"></select></div>
      <div class="field"><label for="plan-custom-target">Custom target (trees per acre)</label><input id="plan-custom-target" name="plan-custom-target" type="number" inputmode="decimal" min="1" step="any" placeholder="the rule’s minimum"></div>
    </div>
  </details>${PLAN_TREATMENTS_HTML}${planCostsHtml(costDefaults)}
  <div class="plan-actions">
    <button type="submit" id="plan-submit">Plan</button>
    <p id="plan-status" class="plan-status" role="status" aria-live="polite"></p>
  </div>
  <div id="plan-error" class="plan-error" role="alert" hidden></div>
</form>${PLAN_VIEWS_HTML}
<div id="plan-result" class="plan-result" role="tabpanel" aria-labelledby="plan-view-plan">
  <p id="plan-verdict" class="verdict"></p>
  <p id="plan-required" class="required"></p>
  <h2>Surviving trees per acre</h2>
  <div id="plan-chart" class="chart chart-plan"></div>
  <p id="plan-verify" class="verify-flag" hidden></p>
  <p id="plan-rule" class="summary plan-rule"></p>
  <p id="plan-site" class="summary plan-site"></p>
  <table id="plan-species" class="differential plan-species" hidden>
    <caption id="plan-species-caption">By species</caption>
    <thead><tr><th scope="col">Species</th><th scope="col">Share</th><th scope="col">Survival</th><th scope="col">Trees per acre</th></tr></thead>
    <tbody id="plan-species-body"></tbody>
  </table>
${PLAN_COST_HTML}
  <h2>Notes</h2>
  <ul id="plan-notes" class="plan-notes"></ul>
  <p id="plan-model" class="model"></p>
  <p class="actions"><button type="button" id="report-plan" disabled title="The report of this plan as a PDF, in your browser’s language, on your region’s paper">Download PDF</button></p>
  <p id="report-plan-status" class="report-status" role="status" aria-live="polite"></p>
</div>${PLAN_OPTIONS_HTML}`
