import type { ExplorerAssets } from './assets.ts'
import type { ExplorerPageData } from './page-data.ts'

/** JSON inside a <script> element: `<` escaped so no string in it can close the element. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c')
}

export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Observable Plot writes a <style> element into each chart.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export function renderExplorerPage(assets: ExplorerAssets, data: ExplorerPageData): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Survival Explorer — Survival Prediction API</title>
<meta name="description" content="Tree survival at 1, 3 and 5 years for sites in Oregon and Washington, today and in future climates: compare planting methods, rank species, map survival.">
<link rel="stylesheet" href="/explorer/assets/${assets.style.name}">
<script type="module" src="/explorer/assets/${assets.script.name}"></script>
</head>
<body>
<header class="bar">
  <h1>Survival Explorer</h1>
  <form id="key-form" class="key-form" autocomplete="off">
    <label for="api-key">API key</label>
    <input id="api-key" name="api-key" type="password" spellcheck="false" placeholder="tsp_live_…" autocomplete="off">
    <button type="submit">Use key</button>
  </form>
  <p id="quota" class="quota" role="status" aria-live="polite">No key yet</p>
  <details class="get-key">
    <summary>Get a free spore key</summary>
    <form id="spore-form" class="spore-form">
      <label for="spore-email">Email</label>
      <input id="spore-email" name="email" type="email" required autocomplete="email">
      <button type="submit">Email me a key</button>
      <p id="spore-result" class="spore-result" role="status" aria-live="polite"></p>
    </form>
  </details>
</header>
<main class="layout">
  <section id="map-pane" class="map-pane" aria-label="Map" aria-busy="false">
    <div id="map" class="map" role="application" aria-label="Map of Oregon and Washington: click to choose a planting site" tabindex="0"></div>
    <p id="map-message" class="map-message" role="status" aria-live="polite" hidden></p>
    <div id="map-legend" class="map-legend" hidden></div>
    <div class="spinner" aria-hidden="true"></div>
  </section>
  <aside id="side" class="side">
    <form id="controls" class="controls">
      <div class="field"><label for="species">Species</label><select id="species" name="species"></select></div>
      <div class="field"><label for="method">Planting method</label><select id="method" name="method"></select></div>
      <div class="field"><label for="horizon">Horizon</label><select id="horizon" name="horizon"></select></div>
      <div class="field map-toggle">
        <input id="show-map" name="show-map" type="checkbox"><label for="show-map">Survival map</label>
        <label for="cell-km" class="visually-hidden">Cell size</label><select id="cell-km" name="cell-km"></select>
      </div>
      <div class="field gis-actions">
        <button type="button" id="download-geotiff" title="The survival surface of this species, method, horizon, climate and model version as a Cloud-Optimized GeoTIFF">Download GeoTIFF</button>
        <button type="button" id="copy-ogc-url" title="The survival map as an OGC API – Features layer URL, for QGIS or ArcGIS">Copy OGC URL</button>
      </div>
      <p id="gis-status" class="gis-status" role="status" aria-live="polite"></p>
      <div class="field"><label for="period">Climate</label><select id="period" name="period"></select></div>
      <div class="field"><label for="scenario">Emission scenario</label><select id="scenario" name="scenario"></select></div>
      <div class="field"><label for="map-mode">Map shows</label><select id="map-mode" name="map-mode"></select></div>
      <p id="climate-caveat" class="climate-caveat"></p>
      <div class="field model-field"><label for="model-choice">Model version</label><select id="model-choice" name="model-choice" aria-describedby="model-choice-note"></select></div>
      <p id="model-choice-note" class="model-note"></p>
    </form>
    <form id="point-form" class="point-form">
      <div class="field"><label for="latitude">Latitude</label><input id="latitude" name="latitude" inputmode="decimal" required></div>
      <div class="field"><label for="longitude">Longitude</label><input id="longitude" name="longitude" inputmode="decimal" required></div>
      <button type="submit">Go to point</button>
    </form>
    <div class="tabs" role="tablist" aria-label="What to show for the chosen site">
      <button type="button" id="tab-compare" role="tab" aria-controls="panel-compare">Compare methods</button>
      <button type="button" id="tab-ranking" role="tab" aria-controls="panel-ranking">Rank species</button>
    </div>
    <section id="panel-compare" class="panel" role="tabpanel" aria-labelledby="tab-compare" aria-busy="false">
      <div class="spinner" aria-hidden="true"></div>
      <p id="site-summary" class="summary"></p>
      <h2>Survival by planting method</h2>
      <div id="survival-chart" class="chart chart-survival"></div>
      <table id="climate-table" class="differential climate-table" hidden>
        <caption>Survival today and in <span id="climate-table-label"></span>; change in percentage points</caption>
        <thead><tr><th scope="col">Years</th><th scope="col">Method</th><th scope="col">Today</th><th scope="col" id="climate-table-future">Future</th><th scope="col">Change</th></tr></thead>
        <tbody id="climate-body"></tbody>
      </table>
      <div id="climate-note" class="climate-note" hidden></div>
      <table class="differential">
        <caption>Hand planting − drone seeding, in percentage points<span id="differential-climate"></span></caption>
        <thead><tr><th scope="col">Years</th><th scope="col">Hand</th><th scope="col">Drone</th><th scope="col">Difference</th></tr></thead>
        <tbody id="differential-body"></tbody>
      </table>
      <h2>Why: every factor at <span id="factor-horizon"></span> years, <span id="factor-method"></span><span id="factor-climate"></span></h2>
      <div id="factor-chart" class="chart chart-factors"></div>
      <p id="factor-sum" class="factor-sum"></p>
      <p id="factor-calibration" class="factor-calibration" hidden></p>
      <h2>The matched site</h2>
      <dl id="site-attributes" class="attributes"></dl>
      <p class="actions"><button type="button" id="download-compare" disabled>Download CSV</button> <button type="button" id="report-compare" disabled title="The report of this comparison as a PDF, in your browser’s language, on your region’s paper">Download PDF</button> <span id="model-version" class="model"></span></p>
      <p id="report-compare-status" class="report-status" role="status" aria-live="polite"></p>
    </section>
    <section id="panel-ranking" class="panel" role="tabpanel" aria-labelledby="tab-ranking" aria-busy="false" hidden>
      <div class="spinner" aria-hidden="true"></div>
      <h2>Which species survives best here? <small>(<span id="ranking-method"></span>, <span id="ranking-horizon"></span> years<span id="ranking-climate"></span>)</small></h2>
      <div id="ranking-chart" class="chart chart-ranking"></div>
      <p id="ranking-note" class="summary"></p>
      <p id="ranking-climate-note" class="climate-note" hidden></p>
      <p class="actions"><button type="button" id="download-ranking" disabled>Download CSV</button> <button type="button" id="report-ranking" disabled title="The report of this ranking as a PDF, in your browser’s language, on your region’s paper">Download PDF</button> <span id="ranking-model" class="model"></span></p>
      <p id="report-ranking-status" class="report-status" role="status" aria-live="polite"></p>
    </section>
  </aside>
</main>
<script type="application/json" id="explorer-data">${scriptSafeJson(data)}</script>
</body>
</html>
`
}
