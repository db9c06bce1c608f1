/** TEST CODE — `node --import <this> bin/witness.js …`: `rclnodejs` resolves to the ROS 2 stand-in (hooks.ts). */
import { register } from 'node:module';

register('./hooks.js', import.meta.url);
