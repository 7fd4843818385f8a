/**
 * The tests' browser draws text (issue 29): page text and the ✓ and ✗ the reports mark clauses and defects with come
 * out as pixels, not blank boxes. Each is set in the reports' own font stack on a white page; its box is shot as PNG
 * and decoded by the same browser into a canvas, and the pixels that differ from the background are counted. A
 * control box holding only spaces draws nothing, so the count is not an artefact of the shot; a character no font has
 * shows what a missing glyph looks like (a box, where the font draws one), and ✓ and ✗ must look otherwise.
 */
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../support/browser.js';

/** The body font of the HTML reports (reports/html.ts, reports/conformance-html.ts). */
const FONT = '14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif';

const SAMPLES = {
  text: 'Pet Store conformance',
  check: '✓',
  cross: '✗',
  blank: '\u00a0\u00a0\u00a0',
  /** U+0378, unassigned: no font has it, so it shows what a missing glyph draws (nothing, or a box). */
  missing: '\u0378',
} as const;

/**
 * Pixels of a PNG (base64) farther than a small tolerance from white, decoded in the page: browser code, kept as text
 * because the project compiles without the DOM's types.
 */
const DRAWN_PIXELS = `async (png) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + png;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = img.width;
  canvas.height = img.height;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const { data } = ctx.getImageData(0, 0, img.width, img.height);
  let drawn = 0;
  for (let i = 0; i < data.length; i += 4) if (255 * 3 - (data[i] + data[i + 1] + data[i + 2]) > 48) drawn++;
  return drawn;
}`;

describe('text in the tests’ headless Chromium', () => {
  it('page text, ✓ and ✗ are drawn: pixels in their boxes differ from the background; a blank box has none', async () => {
    const drawn = await withBrowser(async (browser) => {
      const page = await browser.newPage();
      const spans = Object.entries(SAMPLES)
        .map(([id, text]) => `<p><span id="${id}">${text}</span></p>`)
        .join('');
      await page.setContent(
        `<!doctype html><meta charset="utf-8"><style>body{font:${FONT};background:#fff;color:#1b1b1b}span{display:inline-block;padding:2px}</style>${spans}`,
      );
      const out: Record<string, { width: number; pixels: number; png: string }> = {};
      for (const id of Object.keys(SAMPLES)) {
        const box = page.locator(`#${id}`);
        const width = (await box.boundingBox())?.width ?? 0;
        const png = (await box.screenshot({ type: 'png' })).toString('base64');
        out[id] = { width, pixels: (await page.evaluate(`(${DRAWN_PIXELS})(${JSON.stringify(png)})`)) as number, png };
      }
      return out;
    });
    // Each glyph box has a width (a missing glyph may still take room: the pixels are what tell).
    for (const id of ['text', 'check', 'cross'] as const) {
      expect(drawn[id]!.width, `${id} box`).toBeGreaterThan(4);
      expect(drawn[id]!.pixels, `${id}: pixels drawn in its box`).toBeGreaterThan(10);
    }
    expect(drawn.blank!.pixels).toBe(0);
    // Glyphs of their own, not the box a missing one gets: each shot differs from the missing glyph's and the other's.
    expect(drawn.check!.png).not.toBe(drawn.missing!.png);
    expect(drawn.cross!.png).not.toBe(drawn.missing!.png);
    expect(drawn.check!.png).not.toBe(drawn.cross!.png);
  });
});
