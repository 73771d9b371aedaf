/**
 * Headless Chromium for the browser tests (Debian's `chromium`, which .ci/run installs; CHROMIUM_PATH overrides).
 * Without it the browser tests are skipped locally, and fail in CI, where it must be present.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable && process.env.CI)
  throw new Error(`Chromium is missing at ${CHROMIUM}; .ci/run installs it (apt-get install chromium)`);

/** A headless Chromium that reaches nothing but the test's own servers. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A rectangle of a picture, in its pixels (as `boundingBox()` gives one, relative to the picture's top left). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The pixels of a box of a picture (whole pixels: the box rounded out), four bytes each (RGBA), row by row. */
export interface Pixels extends Box {
  rgba: Uint8Array;
}

/** A color as three 0-255 channels. */
export type Rgb = [number, number, number];

/** A page of each browser's, kept to decode pictures in (a context of its own, so no test's clock or routes apply). */
const decoders = new WeakMap<Browser, Promise<Page>>();

/**
 * Boxes of a PNG (a Playwright screenshot), decoded by Chromium itself: no image library to install. Only the boxes
 * come back, not the whole picture (a screenshot's pixels, as text, take a third of a second to pass).
 * Why `colorSpaceConversion: "none"`: the bytes come back as the screenshot holds them, so a color compares
 * exactly with the one the stylesheet names.
 */
export async function pixelsOf(browser: Browser, png: Buffer, boxes: Box[]): Promise<Pixels[]> {
  if (!decoders.has(browser))
    decoders.set(
      browser,
      browser.newContext().then((context) => context.newPage()),
    );
  const page = await decoders.get(browser)!;
  const regions = boxes.map((box) => {
    const [x, y] = [Math.floor(box.x), Math.floor(box.y)];
    return { x, y, width: Math.ceil(box.x + box.width) - x, height: Math.ceil(box.y + box.height) - y };
  });
  const decoded = await page.evaluate(
    async ({ data, regions }) => {
      const bytes = Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }), {
        colorSpaceConversion: "none",
        premultiplyAlpha: "none",
      });
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height).getContext("2d")!;
      canvas.drawImage(bitmap, 0, 0);
      return regions.map(({ x, y, width, height }) => {
        const { data: rgba } = canvas.getImageData(x, y, width, height);
        // Base64 in chunks: one argument per byte would overflow the call stack.
        let binary = "";
        for (let at = 0; at < rgba.length; at += 0x8000) binary += String.fromCharCode(...rgba.subarray(at, at + 0x8000));
        return btoa(binary);
      });
    },
    { data: png.toString("base64"), regions },
  );
  return regions.map((region, i) => ({ ...region, rgba: new Uint8Array(Buffer.from(decoded[i]!, "base64")) }));
}

/** The color of the pixel at (x, y) of the picture (rounded down to whole pixels), which must be inside the box. */
export function pixelAt(pixels: Pixels, x: number, y: number): Rgb {
  const [column, row] = [Math.floor(x) - pixels.x, Math.floor(y) - pixels.y];
  if (column < 0 || row < 0 || column >= pixels.width || row >= pixels.height) throw new Error(`(${x}, ${y}) is outside the box`);
  const at = (row * pixels.width + column) * 4;
  return [pixels.rgba[at]!, pixels.rgba[at + 1]!, pixels.rgba[at + 2]!];
}

/** How far apart two colors are: the largest difference of one channel. */
export const colorDistance = (one: Rgb, other: Rgb): number => Math.max(...one.map((channel, i) => Math.abs(channel - other[i]!)));

/** `#rrggbb`, or a computed `rgb(r, g, b)`, as channels. */
export function parseColor(color: string): Rgb {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color.trim());
  if (hex) return [1, 2, 3].map((group) => Number.parseInt(hex[group]!, 16)) as Rgb;
  const channels = /^rgba?\(\s*(\d+)[,\s]+(\d+)[,\s]+(\d+)/.exec(color.trim());
  if (channels) return [1, 2, 3].map((group) => Number(channels[group])) as Rgb;
  throw new Error(`not a color: ${color}`);
}

/**
 * The ink of a box: of its pixels, the one farthest from `background`. Text is drawn antialiased, so most of its
 * pixels are a blend; the cores of its strokes are the text's own color.
 */
export function inkIn(pixels: Pixels, background: Rgb): Rgb {
  let ink = background;
  for (let at = 0; at < pixels.rgba.length; at += 4) {
    const pixel: Rgb = [pixels.rgba[at]!, pixels.rgba[at + 1]!, pixels.rgba[at + 2]!];
    if (colorDistance(pixel, background) > colorDistance(ink, background)) ink = pixel;
  }
  return ink;
}
