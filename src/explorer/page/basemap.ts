import type { FeatureCollection, Geometry } from 'geojson'
import { feature } from 'topojson-client'
import type { GeometryCollection, Topology } from 'topojson-specification'
import states from 'us-atlas/states-10m.json'

/** FIPS codes of the states drawn: Oregon and Washington, and their neighbours for context. */
const COVERED = new Set(['41', '53'])
const NEIGHBOURS = new Set(['06', '16', '30', '32'])

export interface StateProperties {
  name: string
  covered: boolean
}

/** State outlines from us-atlas (shipped in the bundle): the base map, since no tile server is reachable. */
export function stateOutlines(): FeatureCollection<Geometry, StateProperties> {
  const topology = states as unknown as Topology<{ states: GeometryCollection<{ name: string }> }>
  const all = feature(topology, topology.objects.states)
  return {
    type: 'FeatureCollection',
    features: all.features
      .filter((state) => COVERED.has(String(state.id)) || NEIGHBOURS.has(String(state.id)))
      .map((state) => ({
        ...state,
        properties: { name: state.properties.name, covered: COVERED.has(String(state.id)) },
      })),
  }
}
