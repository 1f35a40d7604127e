# The RADAR-base platform service. Build: docker build -t radar-platform .
# Run: docker run -p 8080:8080 -e DATABASE_URL=postgres://… -e RADAR_ADMIN_PASSWORD=… radar-platform

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# No scripts yet: `prepare` (npm run docs) needs the sources, copied next.
RUN npm ci --ignore-scripts
COPY . .
# dist/: the compiled service, and dist/java-docs the code documentation (TypeDoc).
RUN npm run build && npm run docs

FROM node:24-slim
ENV NODE_ENV=production PROFILE=prod PORT=8080
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# --ignore-scripts: `prepare` builds the docs with TypeDoc, a dev dependency; they come built.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/views ./views
COPY --from=build /app/public ./public
USER node
EXPOSE 8080
# slim images have no curl: ask node's fetch.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/actuator/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
