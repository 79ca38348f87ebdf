# Survival at the data sites as an sf data frame, read through OGC API – Features (docs/ogc.md).
#
#   SURVIVAL_API_URL=http://localhost:8080 SURVIVAL_API_KEY=tsp_live_… Rscript clients/r/survival.R PSME manual out.gpkg
#
# Arguments: species code, planting method, and optionally a file to write (any format sf writes, by
# its extension). Prints the number of sites, the mean survival at 5 years and the coordinate system.

suppressMessages(library(sf))

args <- commandArgs(trailingOnly = TRUE)
species <- if (length(args) >= 1) args[[1]] else "PSME"
method <- if (length(args) >= 2) args[[2]] else "manual"
out <- if (length(args) >= 3) args[[3]] else NA

url <- Sys.getenv("SURVIVAL_API_URL", "http://localhost:8080")
key <- Sys.getenv("SURVIVAL_API_KEY")
if (key == "") stop("set SURVIVAL_API_KEY to your API key")

# GDAL sends the key as the password of HTTP Basic credentials; the user name is not read.
Sys.setenv(GDAL_HTTP_USERPWD = paste0("r:", key), GDAL_HTTP_AUTH = "BASIC")

# The equality filters reach the server as query parameters: only this species and method are sent.
query <- sprintf("SELECT * FROM survival WHERE species = '%s' AND method = '%s'", species, method)
survival <- st_read(paste0("OAPIF:", url, "/ogc"), layer = "survival", query = query, quiet = TRUE)

cat(sprintf("sites %d\n", nrow(survival)))
cat(sprintf("mean_survival_5y %.6f\n", mean(survival$survival_5y)))
cat(sprintf("epsg %d\n", st_crs(survival)$epsg))
if (!is.na(out)) {
  st_write(survival, out, quiet = TRUE, delete_dsn = TRUE)
  cat(sprintf("written %s\n", out))
}
