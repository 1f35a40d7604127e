import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/appserver/schema.ts', './src/management/schema.ts', './src/import/schema.ts'],
  schemaFilter: ['appserver', 'management', 'import'],
  out: './migrations',
});
