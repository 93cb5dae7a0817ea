// Mermaid diagrams: <pre class="mermaid"> blocks rendered to SVG by the bundled mermaid.min.js
// (no CDN). Each rendered block gets data-rendered="svg" (the browser test waits for it) or
// data-rendered="error" with the message.
document.addEventListener("DOMContentLoaded", async () => {
  const blocks = document.querySelectorAll("pre.mermaid");
  if (!blocks.length) return;
  if (!window.mermaid) {
    blocks.forEach((b) => b.setAttribute("data-rendered", "error: mermaid.min.js not loaded"));
    return;
  }
  window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "default" });
  for (const block of blocks) {
    try {
      await window.mermaid.run({ nodes: [block] });
      block.setAttribute("data-rendered", block.querySelector("svg") ? "svg" : "error: no svg");
    } catch (err) {
      block.setAttribute("data-rendered", `error: ${err && err.message ? err.message : err}`);
    }
  }
});
