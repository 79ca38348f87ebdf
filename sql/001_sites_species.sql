-- Synthetic forest sites and the species reference. Geometry uses cube + earthdistance (also in PGlite).
CREATE EXTENSION IF NOT EXISTS cube;
CREATE EXTENSION IF NOT EXISTS earthdistance;

CREATE TABLE species (
  code              text PRIMARY KEY CHECK (code ~ '^[A-Z]{4}$'),
  common_name       text NOT NULL,
  scientific_name   text NOT NULL,
  species_group     text NOT NULL CHECK (species_group IN ('conifer', 'hardwood')),
  elev_min_m        integer NOT NULL,
  elev_max_m        integer NOT NULL,
  precip_min_mm     integer NOT NULL,
  precip_max_mm     integer NOT NULL,
  drought_tolerance text NOT NULL CHECK (drought_tolerance IN ('low', 'moderate', 'high')),
  shade_tolerance   text NOT NULL CHECK (shade_tolerance IN ('very_low', 'low', 'moderate', 'high', 'very_high')),
  frost_tolerance   text NOT NULL CHECK (frost_tolerance IN ('low', 'moderate', 'high')),
  range_zones       text[] NOT NULL,
  notes             text NOT NULL
);

CREATE TABLE sites (
  id                        integer PRIMARY KEY,
  latitude                  double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
  longitude                 double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
  -- Stored point on the earthdistance sphere: a plain GiST index on it makes the <-> KNN cheap.
  earth_point               cube NOT NULL,
  region_id                 text NOT NULL,
  zone                      text NOT NULL,
  elevation_m               integer NOT NULL,
  slope_deg                 double precision NOT NULL,
  aspect_deg                double precision NOT NULL,
  heat_load_index           double precision NOT NULL,
  soil_depth_cm             integer NOT NULL,
  rock_fraction_pct         double precision NOT NULL,
  vegetation_cover_pct      double precision NOT NULL,
  annual_precip_mm          integer NOT NULL,
  summer_water_deficit_mm   integer NOT NULL,
  growing_season_frost_days integer NOT NULL,
  browse_pressure_index     double precision NOT NULL
);

CREATE INDEX sites_earth_point_knn ON sites USING gist (earth_point);

-- Fingerprint of each loaded reference data set, so re-seeding identical data changes nothing.
CREATE TABLE seed_state (
  dataset     text PRIMARY KEY,
  fingerprint text NOT NULL,
  row_count   integer NOT NULL,
  loaded_at   timestamptz NOT NULL DEFAULT now()
);
