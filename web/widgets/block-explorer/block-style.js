// block-style.js — <block-explorer>'s own styles: the stepper's layout, the dataflow diagram, the settings, the bars.
export const CSS = `
.stepper { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.75rem; align-items: start; }
@container (min-width: 700px) { .stepper { grid-template-columns: minmax(260px, 340px) minmax(0, 1fr); } }
.diagram { max-width: 340px; border-radius: 6px; }
.diagram svg { max-width: 340px; }
.node rect { fill: var(--bs-panel); stroke: var(--bs-border); stroke-width: 1.5; }
.node.norm rect { stroke: var(--bs-c4); stroke-width: 2; }
.node text { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 12px; }
.node.current rect { fill: var(--bs-accent); stroke: var(--bs-accent); }
.node.current text { fill: var(--bs-bg); font-weight: 600; }
.node { cursor: pointer; }
.lane { stroke: var(--bs-c3); stroke-width: 4; fill: none; }
.lane.current { stroke: var(--bs-accent); stroke-width: 6; }
.flow { stroke: var(--bs-muted); stroke-width: 1.5; fill: none; }
.arrowhead { fill: var(--bs-muted); }
.plus circle { fill: var(--bs-bg); stroke: var(--bs-c3); stroke-width: 2; }
.plus text { font-size: 14px; font-weight: 700; }
.lane-label { fill: var(--bs-c3); font-size: 11px; }
.panel h4 { margin: 0 0 0.25rem; font-size: 1rem; }
.panel pre { margin: 0.25rem 0; padding: 0.35rem 0.5rem; background: var(--bs-panel); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.stepnav { display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; }
.summary td { white-space: nowrap; }
[hidden] { display: none !important; }
@container (max-width: 420px) { table { font-size: 0.85rem; } th, td { padding: 0.15rem 0.3rem; } }
fieldset { border: 1px solid var(--bs-border); border-radius: 6px; padding: 0.25rem 0.6rem 0.4rem; margin: 0; min-width: 0; }
legend { padding: 0 0.25rem; }
.settings { margin: 0.4rem 0; }
.settings .row label { white-space: nowrap; }
input[type="number"] { width: 5.5rem; }
input.prompt { width: 22rem; }
.legend-swatch { display: inline-block; width: 1.4em; height: 0; border-top: 3px solid; vertical-align: middle; margin-right: 0.3em; }
.bar { fill: var(--bs-c1); }
.ref { stroke: var(--bs-muted); stroke-dasharray: 4 4; }
.ref-label { paint-order: stroke; stroke: var(--bs-bg); stroke-width: 4px; stroke-linejoin: round; }
caption { text-align: start; caption-side: top; }
details > summary { cursor: pointer; margin: 0.25rem 0; }
.scroll { position: relative; }
`;
