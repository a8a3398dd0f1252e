// Imported before a bridge is imported (dynamically): installs loader.js.
import { register } from 'node:module';

register('./loader.js', import.meta.url);
