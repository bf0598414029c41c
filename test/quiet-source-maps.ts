/**
 * A Vite plugin for the test configs: drops Vite's warnings that a package under node_modules
 * ships a source map naming files it does not ship ("Sourcemap for ... points to missing source
 * files"). They are about the package, not this project, and nothing here can fix them; the same
 * warning for a file of this project still prints.
 */

/** Vite's warning about a dependency's source map. */
const DEPENDENCY_SOURCE_MAP = /Sourcemap for "[^"]*[\\/]node_modules[\\/][^"]*" points to/;

/** The plugin (typed by what it touches, so the configs need not import vite). */
export function quietDependencySourceMaps() {
  return {
    name: "quiet-dependency-source-maps",
    configResolved(config: { logger: { warnOnce(msg: string, options?: unknown): void } }) {
      const warnOnce = config.logger.warnOnce.bind(config.logger);
      config.logger.warnOnce = (msg, options) => {
        if (!DEPENDENCY_SOURCE_MAP.test(msg)) warnOnce(msg, options);
      };
    },
  };
}
