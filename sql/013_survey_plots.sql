-- Field surveys: what an account counted on its plots, beside what the model predicted for them.
-- A plot's identity is (account, plot_id, surveyed_on): sending it again replaces it. The prediction
-- at the plot's age is computed once, when the plot is stored, with the model version that made it.
CREATE TABLE survey_plots (
  -- The account (rotation chain) of the key that wrote it: never visible to another account.
  account_id        text NOT NULL,
  plot_id           text NOT NULL CHECK (length(plot_id) BETWEEN 1 AND 64),
  surveyed_on       date NOT NULL,
  planted_on        date NOT NULL,
  latitude          double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
  longitude         double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
  species_code      text NOT NULL CHECK (species_code ~ '^[A-Z]{4}$'),
  planting_method   text NOT NULL CHECK (planting_method IN ('manual', 'drone_seeded')),
  -- Trees planted (for drone seeding, seed pods dropped) and alive at the survey.
  planted           integer NOT NULL CHECK (planted BETWEEN 1 AND 10000),
  alive             integer NOT NULL CHECK (alive BETWEEN 0 AND planted),
  plot_area_m2      double precision CHECK (plot_area_m2 > 0),
  protocol          text CHECK (length(protocol) BETWEEN 1 AND 64),
  -- The data site the plot was matched to, as a prediction is, where it lies and how far.
  site_id           integer NOT NULL,
  matched_latitude  double precision NOT NULL,
  matched_longitude double precision NOT NULL,
  match_distance_km double precision NOT NULL CHECK (match_distance_km >= 0),
  -- surveyed_on − planted_on in years (365.25 days), from 0.25 to 10.
  age_years         double precision NOT NULL CHECK (age_years BETWEEN 0.25 AND 10),
  -- The model's survival at age_years for the matched site, species and method (docs/model-card.md).
  predicted         double precision NOT NULL CHECK (predicted > 0 AND predicted < 1),
  model_version     text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, plot_id, surveyed_on),
  CHECK (surveyed_on > planted_on)
);

-- The list and the report filter by species and method, by surveyed_on, and page by plot.
CREATE INDEX survey_plots_by_species ON survey_plots (account_id, species_code, planting_method);
CREATE INDEX survey_plots_by_survey_date ON survey_plots (account_id, surveyed_on);
