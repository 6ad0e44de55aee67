/** Stylesheets are bundled by esbuild into the hashed CSS file beside the script. */
declare module '*.css';
