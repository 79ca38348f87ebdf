# Survival at the data sites as an sf data frame, read through OGC API – Features (docs/ogc.md).
#
#   SURVIVAL_API_URL=http://localhost:8080 SURVIVAL_API_KEY=tsp_live_… Rscript clients/r/survival.R PSME manual out.gpkg
#   … Rscript clients/r/survival.R PSME manual out.gpkg vegetation_control=release_2yr animal_protection=mesh_tubes
#
# Arguments: species code, planting method, optionally a file to write (any format sf writes, by its
# extension), then any of the layer's other filters as name=value: the treatments (vegetation_control,
# animal_protection, stock_type, shade; docs/treatments.md), period and scenario (a future climate) and
# model_version. Prints the number of sites, the mean survival at 5 years and the coordinate system.

suppressMessages(library(sf))

args <- commandArgs(trailingOnly = TRUE)
named <- grepl("=", args, fixed = TRUE)
positional <- args[!named]
species <- if (length(positional) >= 1) positional[[1]] else "PSME"
method <- if (length(positional) >= 2) positional[[2]] else "manual"
out <- if (length(positional) >= 3) positional[[3]] else NA

url <- Sys.getenv("SURVIVAL_API_URL", "http://localhost:8080")
key <- Sys.getenv("SURVIVAL_API_KEY")
if (key == "") stop("set SURVIVAL_API_KEY to your API key")

# GDAL sends the key as the password of HTTP Basic credentials; the user name is not read.
Sys.setenv(GDAL_HTTP_USERPWD = paste0("r:", key), GDAL_HTTP_AUTH = "BASIC")

# The filters go in the collection's URL: GDAL sends its query with every page it asks for, the first
# (read for the layer's fields) included, so only these rows travel. The server checks each, so a
# misspelt value, or a treatment drone seeding cannot take, stops here with the API's own message.
filters <- c(paste0("species=", species), paste0("method=", method), args[named])
pairs <- strsplit(filters, "=", fixed = TRUE)
query <- vapply(pairs, function(p) {
  paste0(URLencode(p[[1]], reserved = TRUE), "=", URLencode(paste(p[-1], collapse = "="), reserved = TRUE))
}, "")
dsn <- paste0("OAPIF:", url, "/ogc/collections/survival?", paste(query, collapse = "&"))
survival <- st_read(dsn, layer = "survival", quiet = TRUE)

cat(sprintf("sites %d\n", nrow(survival)))
cat(sprintf("mean_survival_5y %.6f\n", mean(survival$survival_5y)))
cat(sprintf("epsg %d\n", st_crs(survival)$epsg))
if ("treatments_data_version" %in% names(survival))
  cat(sprintf("treatments_data_version %s\n", survival$treatments_data_version[[1]]))
if (!is.na(out)) {
  st_write(survival, out, quiet = TRUE, delete_dsn = TRUE)
  cat(sprintf("written %s\n", out))
}
