import { createNoise2D } from 'simplex-noise'
import { createRandom } from './random.ts'

/** Smooth spatial noise in about [-1, 1] over planar km coordinates. */
export type NoiseField = (xKm: number, yKm: number) => number

/** Fractal simplex noise: `octaves` layers, each half the wavelength and half the amplitude of the last. */
export function createNoiseField(seed: number, wavelengthKm: number, octaves: number): NoiseField {
  const noise = createNoise2D(createRandom(seed))
  let amplitudeSum = 0
  for (let octave = 0; octave < octaves; octave++) amplitudeSum += 0.5 ** octave
  return (xKm, yKm) => {
    let value = 0
    let frequency = 1 / wavelengthKm
    let amplitude = 1
    for (let octave = 0; octave < octaves; octave++) {
      // The per-octave offset keeps octaves from sharing a lattice origin.
      value += amplitude * noise(xKm * frequency + octave * 17.3, yKm * frequency - octave * 31.7)
      frequency *= 2
      amplitude *= 0.5
    }
    return value / amplitudeSum
  }
}
