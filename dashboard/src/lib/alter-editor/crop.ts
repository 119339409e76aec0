// The crop of an uploaded image, as plain geometry: the part of the source to keep for a given
// zoom and position, and the size to export it at. The editor draws the same rectangle on its
// preview canvas and on the exported one, so what the member sees is what is uploaded.

export interface CropSettings {
  /** 1 keeps the largest part of the image of the right shape; 4 keeps a quarter of its width. */
  zoom: number;
  /** 0 to 100: where the kept part sits, from the left (0) to the right (100). */
  x: number;
  /** 0 to 100: from the top (0) to the bottom (100). */
  y: number;
}

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const MIN_ZOOM = 1;
export const MAX_ZOOM = 4;

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/**
 * The part of a `width` × `height` image to keep: the shape `aspect` (width / height; 1 is a
 * square), as large as fits divided by the zoom, placed by x and y.
 */
export function cropRectangle(width: number, height: number, aspect: number, settings: CropSettings): Rectangle {
  const zoom = clamp(settings.zoom, MIN_ZOOM, MAX_ZOOM);
  const fullWidth = width / height > aspect ? height * aspect : width;
  const keptWidth = fullWidth / zoom;
  const keptHeight = keptWidth / aspect;
  return {
    x: (width - keptWidth) * (clamp(settings.x, 0, 100) / 100),
    y: (height - keptHeight) * (clamp(settings.y, 0, 100) / 100),
    width: keptWidth,
    height: keptHeight,
  };
}

/**
 * The exported size: the kept part's own pixels, never enlarged, and at most `longSide` wide or
 * high (the service scales avatars to 1024 and banners to 2048 anyway; more would only be upload).
 */
export function exportSize(crop: Rectangle, aspect: number, longSide: number): { width: number; height: number } {
  const scale = Math.min(1, longSide / Math.max(crop.width, crop.height));
  const width = Math.max(1, Math.round(crop.width * scale));
  return { width, height: Math.max(1, Math.round(width / aspect)) };
}
