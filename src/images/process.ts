// An upload made into what the service keeps: decoded by its bytes (PNG, JPEG, WebP or GIF, never
// by a name or a declared type), checked against decompression bombs before any pixel is decoded,
// turned upright by its EXIF orientation, scaled down to what Discord shows for its purpose, and
// re-encoded as WebP with no metadata at all (phone photos carry their location). An animated GIF
// or WebP stays animated. sharp (libvips) does the work off the event loop, on libuv's threads; it
// is loaded on the first upload.
import type { Sharp, SharpOptions } from 'sharp';
import { ACCEPTED_IMAGE_FORMATS, IMAGE_PURPOSES, MAX_IMAGE_PIXELS, MAX_UPLOAD_BYTES, type ImagePurpose } from '../domain/images.js';
import { Problem } from '../domain/problems.js';

/** Every frame of an animation together: a small image with thousands of frames is a bomb too. */
const MAX_ANIMATION_PIXELS = 5 * MAX_IMAGE_PIXELS;

export interface ProcessedImage {
  data: Buffer;
  width: number;
  /** One frame's height. */
  height: number;
  animated: boolean;
}

type SharpFactory = (input: Buffer, options?: SharpOptions) => Sharp;
let loading: Promise<SharpFactory> | undefined;
const loadSharp = () => (loading ??= import('sharp').then((module) => module.default as SharpFactory));

const accepted = new Set<string>(ACCEPTED_IMAGE_FORMATS);

export async function processImage(input: Buffer, purpose: ImagePurpose): Promise<ProcessedImage> {
  if (input.length > MAX_UPLOAD_BYTES) throw new Problem('body-too-large', `an image may be at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB`, 'file');
  const sharp = await loadSharp();
  // The header alone: format, dimensions and frame count, before anything is decoded.
  const metadata = await sharp(input, { animated: true, limitInputPixels: false })
    .metadata()
    .catch(() => undefined);
  if (!metadata?.format || !accepted.has(metadata.format)) {
    throw new Problem('unsupported-media-type', 'the file is not a PNG, JPEG, WebP or GIF image', 'file');
  }
  const width = metadata.width ?? 0;
  const frameHeight = metadata.pageHeight ?? metadata.height ?? 0;
  const frames = metadata.pages ?? 1;
  if (width * frameHeight > MAX_IMAGE_PIXELS || width * frameHeight * frames > MAX_ANIMATION_PIXELS) {
    throw new Problem('invalid-image', `the image is too large: at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels (this one is ${width}×${frameHeight}${frames > 1 ? ` in ${frames} frames` : ''})`, 'file');
  }
  const animated = frames > 1;
  const longest = IMAGE_PURPOSES[purpose];
  try {
    let pipeline = sharp(input, { animated, failOn: 'truncated', limitInputPixels: MAX_ANIMATION_PIXELS });
    // EXIF orientation is applied to the pixels, since the metadata that carries it is dropped.
    if (!animated) pipeline = pipeline.rotate();
    const { data, info } = await pipeline
      .resize({ width: longest, height: longest, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 85, effort: 4 })
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.pageHeight ?? info.height, animated };
  } catch {
    throw new Problem('invalid-image', 'the image could not be read: the file is damaged or incomplete', 'file');
  }
}
