#include "gui/presets.h"

namespace parascope::gui {

const std::vector<Preset>& topology_presets() {
  static const std::vector<Preset> presets = load_presets();
  return presets;
}

int preset_index(const MachineChoice& choice) {
  const auto& presets = topology_presets();
  for (size_t i = 0; i < presets.size(); ++i)
    if (!choice.preset.empty() && presets[i].name == choice.preset) return static_cast<int>(i);
  return -1;
}

}  // namespace parascope::gui
