import CPluginABI
