// Business constants of spec 5 and 9, in bytes.
export const MAX_FILES_PER_SELECTION = 500;
export const MAX_FILE_BYTES = 85_899_345_920; // 80 GB: upload and browser download
export const WARN_FILE_BYTES = 32_212_254_720; // 30 GB
export const CLIENT_SUGGEST_BYTES = 1_073_741_824; // 1 GB
export const PLUGIN_TIP_TOTAL_BYTES = 524_288_000; // 500 MB
export const PLUGIN_TIP_FILE_COUNT = 50;
export const PROGRESS_REFRESH_MS = 5000;
export const TRANSFER_PAGE_SIZE = 20;
