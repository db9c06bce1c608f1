// Bundles the renderer (and Monaco's workers) into renderer/dist: no CDN, everything offline.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 10_000,
    reportCompressedSize: false,
    // Rolldown's plugin-timing report is noise in every build log.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
  worker: { format: 'es' },
});
