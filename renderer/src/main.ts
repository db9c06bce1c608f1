// Placeholder page: the workbench UI arrives with a later issue. Talks to the app only through
// the typed API object the preload (desktop) or the WebSocket bridge (web mode) provides.
import type { WitnessApi } from '../../main/api/contract.js';

declare global {
  interface Window {
    readonly witness?: WitnessApi;
  }
}

async function showVersion(): Promise<void> {
  const target = document.getElementById('version');
  const api = window.witness;
  if (!target || !api) return;
  try {
    target.textContent = `Version ${await api.version()}`;
  } catch (err) {
    target.textContent = `Version unavailable: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** The ROS 2 backend is optional: say whether it can be used here and, if not, what to do. */
async function showRos2(): Promise<void> {
  const target = document.getElementById('ros2');
  const api = window.witness;
  if (!target || !api) return;
  try {
    const s = await api.ros2Status();
    target.textContent = s.available
      ? `ROS 2 ${s.distro} with rclnodejs ${s.version ?? '(version unknown)'}`
      : `ROS 2 unavailable (the embedded MuJoCo worlds work without it): ${s.message}: ${s.fix}`;
  } catch (err) {
    target.textContent = `ROS 2 status unavailable: ${err instanceof Error ? err.message : String(err)}`;
  }
}

void showVersion();
void showRos2();
